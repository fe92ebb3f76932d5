/** nginx, started by a test in the foreground with its own prefix, temp folders and cache: the shared cache of the CDN tests. */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from './history.ts';
import { freePort } from './free-port.ts';
import { startServer } from './server-process.ts';

export const NGINX = '/usr/sbin/nginx';

export interface Running {
  url: string;
  stop(): Promise<void>;
}

/** nginx in the foreground with its own prefix, temp folders and cache; `http` is the inside of its http block. */
export async function startNginx(http: (port: number, dir: string) => string): Promise<Running> {
  const dir = await tempDir('rates-nginx-');
  const port = await freePort();
  const config = `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy_temp;
  fastcgi_temp_path ${dir}/fastcgi_temp;
  uwsgi_temp_path ${dir}/uwsgi_temp;
  scgi_temp_path ${dir}/scgi_temp;
${http(port, dir)}
}
`;
  await writeFile(join(dir, 'nginx.conf'), config);
  const running = await startServer(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    port,
    env: process.env,
  });
  return {
    url: running.url,
    stop: async () => {
      await running.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
