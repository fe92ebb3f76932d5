import { createService } from './src/service.ts';
import { compileSnapshotTree } from './src/store/compile.ts';
import { ServedStore } from './src/store/served-store.ts';
import { FileStatusStore } from './src/status/status-store.ts';
import { serveHandler } from './test/fixtures/http-adapter.ts';
const store = new ServedStore(await compileSnapshotTree('/tmp/snaps'));
const s = await serveHandler(createService({ loadStore: async () => store, status: new FileStatusStore('/tmp/st') }, { allowedHosts: ['localhost','127.0.0.1','[::1]'] }));
console.log(s.url);
