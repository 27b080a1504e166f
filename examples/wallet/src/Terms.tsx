/** Deposit and withdrawal terms by currency and platform, and the addresses to use for each. */
import type { components } from '@gateway/client';
import { useGatewayQuery } from '@gateway/react';
import { useState } from 'react';
import { ErrorNote } from './ErrorNote.js';

type CurrencyTerms = components['schemas']['CurrencyTerms'];
const keyOf = (terms: CurrencyTerms) => `${terms.id}/${terms.platform_id}`;

function TermsTable({ terms }: { terms: CurrencyTerms }) {
  return (
    <table className="terms">
      <tbody>
        <tr>
          <th>Status</th>
          <td>{terms.status}</td>
        </tr>
        <tr>
          <th>Amount</th>
          <td>
            {terms.allowed_amount.min} to {terms.allowed_amount.max} {terms.id}
          </td>
        </tr>
        <tr>
          <th>Fees</th>
          <td>
            {terms.fees.flat} {terms.id} + {terms.fees.rate * 100}%
          </td>
        </tr>
      </tbody>
    </table>
  );
}

function Choice({
  id,
  list,
  value,
  onChange,
}: {
  id: string;
  list: CurrencyTerms[];
  value: string;
  onChange(v: string): void;
}) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">choose a currency and platform</option>
      {list.map((terms) => (
        <option key={keyOf(terms)} value={keyOf(terms)}>
          {terms.id} on {terms.platform_id}
        </option>
      ))}
    </select>
  );
}

function Deposit() {
  const list = useGatewayQuery('get', '/v1/deposit/currencies', { params: { query: { limit: 100 } } });
  const [choice, setChoice] = useState('');
  const [currency = '', platform = ''] = choice.split('/');
  const address = useGatewayQuery(
    'get',
    '/v1/deposit/addresses/{currency}/{platform}',
    { params: { path: { currency, platform } } },
    { enabled: choice !== '' },
  );
  const terms = list.data?.items.find((t) => keyOf(t) === choice);
  return (
    <div id="deposit">
      <h3>Deposit</h3>
      <ErrorNote error={list.error} />
      <Choice id="deposit-choice" list={list.data?.items ?? []} value={choice} onChange={setChoice} />
      {terms && <TermsTable terms={terms} />}
      <ErrorNote error={address.error} />
      {address.data && (
        <p>
          Send {currency} on {platform} to <code id="deposit-address">{address.data.deposit_addresses[0]}</code>
        </p>
      )}
    </div>
  );
}

function Withdrawal() {
  const list = useGatewayQuery('get', '/v1/withdraw/currencies', { params: { query: { limit: 100 } } });
  const [choice, setChoice] = useState('');
  const [destination, setDestination] = useState('');
  const [asked, setAsked] = useState('');
  const [currency = '', platform = ''] = choice.split('/');
  const proxy = useGatewayQuery(
    'get',
    '/v1/withdraw/addresses/{currency}/{address}/{platform}',
    { params: { path: { currency, address: asked, platform } } },
    { enabled: choice !== '' && asked !== '' },
  );
  const terms = list.data?.items.find((t) => keyOf(t) === choice);
  return (
    <div id="withdrawal">
      <h3>Withdrawal</h3>
      <ErrorNote error={list.error} />
      <Choice id="withdrawal-choice" list={list.data?.items ?? []} value={choice} onChange={setChoice} />
      {terms && <TermsTable terms={terms} />}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setAsked(destination.trim());
        }}
      >
        <label>
          Destination on {platform || 'the platform'}{' '}
          <input id="destination" value={destination} onChange={(e) => setDestination(e.target.value)} />
        </label>{' '}
        <button type="submit" id="withdrawal-address" disabled={choice === '' || destination.trim() === ''}>
          Get the address to pay
        </button>
      </form>
      <ErrorNote error={proxy.error} />
      {proxy.data && (
        <p>
          Transfer {currency} to <code id="proxy-address">{proxy.data.proxy_addresses[0]}</code>: it is paid to {asked}{' '}
          on {platform}, minus fees.
        </p>
      )}
    </div>
  );
}

export function Terms() {
  return (
    <section id="terms">
      <h2>Deposits and withdrawals</h2>
      <Deposit />
      <Withdrawal />
    </section>
  );
}
