// Triage of a change point's alert on the History page: its state, and (with the write
// token this browser keeps) acknowledge, dismiss with a reason, or open it again. The API
// logs who did it by the token's name. A token typed here is kept only once the server has
// accepted it (ui/write-token.ts), as the upload form does.
import type { AlertState } from '@meshbench/schema';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { meshbench } from '../../../api/client.ts';
import {
  readWriteToken,
  saveWriteToken,
  tokenProblem,
  userError,
} from '../../../ui/write-token.ts';

export function AlertTriage({ alert }: { alert: { id: string; state: AlertState } | null }) {
  const client = useQueryClient();
  const [dismissing, setDismissing] = useState(false);
  const [askToken, setAskToken] = useState(false);
  // A token typed after a refusal; empty: the one this browser keeps.
  const [token, setToken] = useState('');
  const update = useMutation({
    mutationFn: (body: { state: AlertState; reason?: string }) =>
      meshbench.projects.updateAlert(alert?.id ?? '', body, {
        token: token || readWriteToken() || undefined,
      }),
    onSuccess: () => {
      // Accepted: now it may be kept.
      if (token) saveWriteToken(token);
      setDismissing(false);
      setAskToken(false);
      setToken('');
      void client.invalidateQueries({ queryKey: ['history'] });
      void client.invalidateQueries({ queryKey: ['alerts'] });
    },
    onError: (error) => {
      if (tokenProblem(error) !== null) setAskToken(true);
    },
  });
  if (!alert) return <span className="muted">—</span>;
  const dismiss = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
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
      {askToken && (
        <input
          name="token"
          type="password"
          placeholder="write token"
          aria-label="Write token"
          value={token}
          data-testid="alert-token"
          onChange={(e) => setToken(e.currentTarget.value.trim())}
        />
      )}
      {update.isError && (
        <span className="error-text" data-testid="alert-error">
          {userError(update.error, 'triage this alert')}
        </span>
      )}
    </div>
  );
}
