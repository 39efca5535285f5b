import { defineConfig } from 'vite';

/**
 * The console builds to console/dist and is served under /console/ on the API's own origin (no
 * CORS): locally by `npm start`, deployed by the console's CloudFront distribution.
 */
export default defineConfig({
  base: '/console/',
  root: import.meta.dirname,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline script may run under the console's Content-Security-Policy: Vite's modulepreload
    // polyfill would be inlined, and browsers that run this app support modulepreload already.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rolldownOptions: {
      onLog(level, log, handler) {
        // TanStack Query marks its modules "use client" for server-component frameworks; this app
        // has no server components, so the directive means nothing once bundled.
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
  server: {
    // `npm run dev -w console` against a running `npm start`: the API on the same origin through
    // the proxy, so the session cookie works as deployed.
    proxy: { '/v1': 'http://localhost:3000' },
  },
});
