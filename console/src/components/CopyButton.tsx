import { useState } from 'react';

/** Copies `text` to the clipboard and says so (in a live region), or says it could not. */
export const CopyButton = ({ text, label, name }: { text: string; label: string; name?: string }) => {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <span className="copy">
      <button
        type="button"
        className="secondary"
        aria-label={name}
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => {
              setStatus('copied');
            },
            () => {
              setStatus('failed');
            },
          );
        }}
      >
        {label}
      </button>
      <span role="status" className="copy-status">
        {status === 'copied' ? 'Copied' : status === 'failed' ? 'Copy failed: select the link and copy it' : ''}
      </span>
    </span>
  );
};
