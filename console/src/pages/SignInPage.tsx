import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { signIn, type SessionInfo } from '../session';

/** Sign-in: a server key is exchanged for a session; the key is not kept by the page. */
export const SignInPage = ({
  notice,
  onSignedIn,
}: {
  notice: string | undefined;
  onSignedIn: (session: SessionInfo) => void;
}) => {
  const [apiKey, setApiKey] = useState('');
  const attempt = useMutation({ mutationFn: signIn, onSuccess: onSignedIn, meta: { signIn: true } });
  useEffect(() => {
    document.title = 'Sign in · Link service console';
  }, []);
  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the link service</h1>
      {notice ? (
        <p role="status" className="notice">
          {notice}
        </p>
      ) : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          attempt.mutate(apiKey.trim());
        }}
      >
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="text"
          autoComplete="off"
          spellCheck={false}
          required
          value={apiKey}
          aria-describedby="api-key-help"
          onChange={(event) => {
            setApiKey(event.target.value);
          }}
        />
        <p id="api-key-help" className="help">
          A server key of your workspace (<code>sk_…</code>). It is exchanged for a session of 12 hours and not kept in
          this browser.
        </p>
        <button type="submit" disabled={attempt.isPending}>
          {attempt.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {attempt.error ? <ErrorNotice title="Sign-in failed" error={attempt.error} /> : null}
    </main>
  );
};
