/** Sign-in with a seed phrase (the demo account's by default): the key stays in the page, only a signature goes. */
import { signerFromSeed } from '@gateway/client';
import { useLogin } from '@gateway/react';
import { useState } from 'react';
import { ErrorNote } from './ErrorNote.js';

/** The demo exchange's account (the ledger library's public test vector: never for real funds). */
const DEMO_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';

export function SignIn({ lifetime }: { lifetime: number | undefined }) {
  const [seed, setSeed] = useState(DEMO_SEED);
  const login = useLogin();
  return (
    <form
      id="sign-in-form"
      onSubmit={(e) => {
        e.preventDefault();
        login.mutate({ signer: signerFromSeed(seed.trim()), lifetime });
      }}
    >
      <h2>Sign in</h2>
      <label>
        Seed phrase
        <textarea id="seed" rows={2} value={seed} onChange={(e) => setSeed(e.target.value)} />
      </label>
      <button type="submit" id="sign-in" disabled={login.isPending || seed.trim() === ''}>
        {login.isPending ? 'Signing in…' : 'Sign in'}
      </button>
      <ErrorNote error={login.error} />
    </form>
  );
}
