// After `npm install` on a registry that serves only some platforms' builds of the Vercel CLI's
// native binary (`@vercel/vc-native-<platform>`), npm leaves the others out of package-lock.json
// and `npm ci` then refuses the lockfile as out of sync. This puts them back as a lockfile written
// with the whole registry lists them: optional, for their own platform only, so no other platform
// installs them. Run: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const FILE = 'package-lock.json';
const PLATFORMS = {
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'linux-arm64': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-x64': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'win32-arm64': { os: 'win32', cpu: 'arm64' },
  'win32-x64': { os: 'win32', cpu: 'x64' },
};

const lock = JSON.parse(readFileSync(FILE, 'utf8'));
const { version } = lock.packages['node_modules/vercel'] ?? {};
if (!version) throw new Error(`${FILE} has no vercel package`);
const entries = Object.entries(lock.packages);
const at = entries.findIndex(([key]) => key.startsWith('node_modules/@vercel/vc-native-'));
const kept = entries.filter(([key]) => !key.startsWith('node_modules/@vercel/vc-native-'));
const native = Object.entries(PLATFORMS).map(([name, { os, cpu, libc }]) => {
  const key = `node_modules/@vercel/vc-native-${name}`;
  const known = lock.packages[key];
  const entry = known ?? {
    version,
    cpu: [cpu],
    dev: true,
    ...(libc ? { libc: [libc] } : {}),
    license: 'Apache-2.0',
    optional: true,
    os: [os],
  };
  return [key, entry];
});
kept.splice(at < 0 ? kept.length : at, 0, ...native);
lock.packages = Object.fromEntries(kept);
writeFileSync(FILE, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${FILE}: @vercel/vc-native-* listed for ${Object.keys(PLATFORMS).join(', ')}`);
