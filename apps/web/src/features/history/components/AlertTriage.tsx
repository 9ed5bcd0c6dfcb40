// Triage of a change point's alert on the History page: its state, and (with the write
// token this browser keeps) acknowledge, dismiss with a reason, or open it again. The API
// logs who did it by the token's name.
import type { AlertState } from '@meshbench/schema';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiRequestError, meshbench } from '../../../api/client.ts';
import { readWriteToken, saveWriteToken } from '../../../ui/write-token.ts';

export function AlertTriage({ alert }: { alert: { id: string; state: AlertState } | null }) {
  const client = useQueryClient();
  const [dismissing, setDismissing] = useState(false);
  const [askToken, setAskToken] = useState(false);
  const update = useMutation({
    mutationFn: (body: { state: AlertState; reason?: string }) =>
      meshbench.projects.updateAlert(alert?.id ?? '', body, {
        token: readWriteToken() || undefined,
      }),
    onSuccess: () => {
      setDismissing(false);
      void client.invalidateQueries({ queryKey: ['history'] });
    },
    onError: (error) => {
      if (error instanceof ApiRequestError && (error.status === 401 || error.status === 403))
        setAskToken(true);
    },
  });
  if (!alert) return <span className="muted">—</span>;
  const dismiss = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const token = String(form.get('token') ?? '').trim();
    if (token) saveWriteToken(token);
    update.mutate({ state: 'dismissed', reason: String(form.get('reason') ?? '').trim() });
  };
  return (
    <div className="alert-triage" data-testid="alert-triage">
      <span className={`alert-state alert-${alert.state}`} data-testid="alert-state">
        {alert.state}
      </span>
      {dismissing ? (
        <form onSubmit={dismiss} className="alert-dismiss">
          <input name="reason" required placeholder="why dismiss?" aria-label="Reason to dismiss" />
          {askToken && (
            <input
              name="token"
              type="password"
              placeholder="write token"
              aria-label="Write token"
            />
          )}
          <button type="submit" className="button" disabled={update.isPending}>
            Dismiss
          </button>
        </form>
      ) : (
        <>
          {alert.state !== 'acknowledged' && alert.state !== 'dismissed' && (
            <button
              type="button"
              className="link-button"
              onClick={() => update.mutate({ state: 'acknowledged' })}
            >
              acknowledge
            </button>
          )}
          {alert.state !== 'dismissed' ? (
            <button type="button" className="link-button" onClick={() => setDismissing(true)}>
              dismiss…
            </button>
          ) : (
            <button
              type="button"
              className="link-button"
              onClick={() => update.mutate({ state: 'open' })}
            >
              reopen
            </button>
          )}
        </>
      )}
      {update.isError && (
        <span className="error-text">
          {askToken
            ? 'a write token of the project is needed: give it and retry'
            : update.error.message}
        </span>
      )}
    </div>
  );
}
