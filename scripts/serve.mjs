// Serve the production build (`npm start` builds first) on 127.0.0.1:8787 unless HOST/PORT say otherwise.
process.env.PORT ??= '8787';
process.env.HOST ??= '127.0.0.1';
await import('../dist/server/entry.mjs');
