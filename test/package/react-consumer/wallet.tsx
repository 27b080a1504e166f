// The same page with the hooks: the session, an infinite list, a query, a mutation, the live events.
import { type components, createGatewayClient, type GatewayError, signerFromSeed, webStorage } from '@gateway/client';
import {
  GatewayProvider,
  useAccountEvents,
  useGatewayInfiniteQuery,
  useGatewayQuery,
  useLogin,
  useSession,
} from '@gateway/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRoot } from 'react-dom/client';

const client = createGatewayClient({
  baseUrl: 'http://127.0.0.1:3000',
  chainId: 'W',
  clientId: 'waves.exchange',
  storage: webStorage(localStorage),
});

function Movements() {
  const list = useGatewayInfiniteQuery('/v1/movements', { params: { query: { limit: 20 } } });
  const movements: components['schemas']['Movement'][] = list.data?.pages.flatMap((page) => page.items) ?? [];
  const error: GatewayError | null = list.error;
  const platform = useGatewayQuery('get', '/v1/platforms/{id}', { params: { path: { id: 'ETH' } } });
  const name: string | undefined = platform.data?.name;
  const live = useAccountEvents();
  return (
    <div>
      <p>
        {live.state.status} {name} {error?.kind} {error?.requestId}
      </p>
      <ul>
        {movements.map((m) => (
          <li key={m.id}>{m.amount.toFixed(2)}</li>
        ))}
      </ul>
      <button type="button" onClick={() => list.fetchNextPage()} disabled={!list.hasNextPage}>
        more
      </button>
    </div>
  );
}

function App() {
  const session = useSession();
  const login = useLogin();
  if (session.status !== 'signed_in') {
    return (
      <button type="button" onClick={() => login.mutate({ signer: signerFromSeed('a seed phrase'), lifetime: 3600 })}>
        sign in
      </button>
    );
  }
  return <Movements />;
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <QueryClientProvider client={new QueryClient()}>
      <GatewayProvider client={client}>
        <App />
      </GatewayProvider>
    </QueryClientProvider>,
  );
}
