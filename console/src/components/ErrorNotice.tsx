import { LinkServiceError } from '@linkservice/sdk';

/** An error as the API gave it: its message, and the request id to quote to support. */
export const ErrorNotice = ({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) => {
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof LinkServiceError ? error.requestId : undefined;
  const code = error instanceof LinkServiceError ? error.code : undefined;
  return (
    <div className="error" role="alert">
      <p className="error-title">{title}</p>
      <p>{message}</p>
      {code || requestId ? (
        <p className="error-meta">
          {code ? (
            <>
              Code <code>{code}</code>
            </>
          ) : null}
          {code && requestId ? ' · ' : null}
          {requestId ? (
            <>
              Request id <code>{requestId}</code>
            </>
          ) : null}
        </p>
      ) : null}
    </div>
  );
};
