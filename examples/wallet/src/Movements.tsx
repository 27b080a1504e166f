/** The account's movements, newest first, page by page ("Load more"); live events update the rows in place. */
import { useGatewayInfiniteQuery } from '@gateway/react';
import { showAmount, useDecimals } from './amounts.js';
import { ErrorNote } from './ErrorNote.js';

export const PAGE_SIZE = 20;

export function Movements() {
  const list = useGatewayInfiniteQuery('/v1/movements', { params: { query: { limit: PAGE_SIZE } } });
  const decimals = useDecimals();
  const movements = list.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section id="movements">
      <h2>
        Movements{' '}
        <button type="button" id="reload" onClick={() => list.refetch()} disabled={list.isFetching}>
          Reload
        </button>
      </h2>
      <ErrorNote error={list.error} />
      {list.isPending && <p>Loading movements…</p>}
      <table>
        <thead>
          <tr>
            <th>Created</th>
            <th>Direction</th>
            <th>Amount</th>
            <th>Status</th>
            <th>Route</th>
          </tr>
        </thead>
        <tbody>
          {movements.map((m) => (
            <tr key={m.id} data-id={m.id} data-status={m.status}>
              <td>{new Date(m.created_at).toLocaleString()}</td>
              <td>{m.direction}</td>
              <td>
                {showAmount(m.amount, decimals.get(m.currency_id))} {m.currency_id}
              </td>
              <td>{m.status}</td>
              <td>
                {m.source_platform_id} → {m.destination_platform_id}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        {movements.length} shown.{' '}
        <button
          type="button"
          id="more"
          onClick={() => list.fetchNextPage()}
          disabled={!list.hasNextPage || list.isFetchingNextPage}
        >
          {list.isFetchingNextPage ? 'Loading…' : list.hasNextPage ? 'Load more' : 'No more'}
        </button>
      </p>
    </section>
  );
}
