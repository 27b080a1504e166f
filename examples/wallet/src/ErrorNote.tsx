/** A failure as the user sees it: what failed (the GatewayError's kind), the server's words, its request id. */
import { GatewayError } from '@gateway/client';

const TITLES: Record<GatewayError['kind'], string> = {
  api: 'The gateway refused the request',
  session: 'Your session ended: sign in again',
  network: 'The gateway cannot be reached',
  timeout: 'The gateway did not answer in time',
  abort: 'Cancelled',
};

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  if (!(error instanceof GatewayError)) {
    return (
      <div className="error" role="alert">
        {String(error)}
      </div>
    );
  }
  const facts = [error.kind, error.status ? `HTTP ${error.status}` : '', error.code ? `code ${error.code}` : '']
    .filter(Boolean)
    .join(', ');
  // The server's messages end with a full stop; one is added where they do not.
  const message = (error.body?.errors[0]?.message ?? error.message).replace(/\.?\s*$/, '.');
  return (
    <div className="error" role="alert" data-kind={error.kind} data-status={error.status}>
      <strong>{TITLES[error.kind]}</strong> ({facts}): {message} Request id:{' '}
      <code className="request-id">{error.requestId ?? 'none'}</code>
    </div>
  );
}
