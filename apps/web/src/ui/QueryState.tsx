// What a panel shows while its data loads or when the API said no.
import { ApiRequestError } from '../api/client.ts';

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading" role="status">
      <span className="spinner" aria-hidden="true" />
      Loading {what}…
    </div>
  );
}

export function ErrorMessage({ error, what }: { error: unknown; what: string }) {
  const message = error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiRequestError && error.status > 0 ? ` (${error.status})` : '';
  return (
    <div className="state state-error" role="alert">
      <strong>
        Could not load {what}
        {status}
      </strong>
      <span>{message}</span>
    </div>
  );
}
