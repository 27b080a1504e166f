import { GatewayProvider } from '@gateway/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { createClient } from './gateway.js';
import { readSettings } from './settings.js';

const settings = readSettings();
const client = createClient(settings);
const queryClient = new QueryClient();
const root = document.getElementById('root');
if (!root) throw new Error('no #root element');

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <GatewayProvider client={client}>
        <App settings={settings} />
      </GatewayProvider>
    </QueryClientProvider>
  </StrictMode>,
);
