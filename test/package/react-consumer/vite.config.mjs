// Bundles one page (ENTRY: wallet.html or client.html) into out/<name>, the app's own React, react-dom and
// TanStack Query left out: the difference between the two bundles is what the hooks add.
const entry = process.env.ENTRY ?? 'wallet.html';
export default {
  logLevel: 'error',
  build: {
    outDir: `out/${entry.replace('.html', '')}`,
    rollupOptions: {
      input: entry,
      external: ['react', 'react/jsx-runtime', 'react-dom', 'react-dom/client', '@tanstack/react-query'],
    },
  },
};
