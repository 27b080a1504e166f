import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run wallet` (vite's dev server on http://localhost:5173); `vite build` for dist/.
export default defineConfig({
  plugins: [react()],
  server: { port: 5173, strictPort: false },
});
