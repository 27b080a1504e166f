import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run wallet` (vite's dev server on http://localhost:5173; `npm run wallet -- --port 3120` for another);
// `vite build` for dist/. The page's gateway choices are on the ports the demo server and the mock take
// (`PORT`, `MOCK_PORT`; or `VITE_GATEWAY_PORT`, `VITE_MOCK_PORT`), read when vite starts or builds.
const gatewayPort = process.env.VITE_GATEWAY_PORT || process.env.PORT || '3000';
const mockPort = process.env.VITE_MOCK_PORT || process.env.MOCK_PORT || '4010';

export default defineConfig({
  plugins: [react()],
  server: { port: 5173, strictPort: false },
  define: {
    'import.meta.env.VITE_GATEWAY_PORT': JSON.stringify(gatewayPort),
    'import.meta.env.VITE_MOCK_PORT': JSON.stringify(mockPort),
  },
});
