// The Share form: the report's title (and a write token when the saved one is missing or
// refused), then the report's link to copy. Creating a report is a write: it carries the
// write token this browser keeps, and keeps a token only once the server has accepted it.
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { browseApi } from '../api/client.ts';
import { ForgetTokenButton } from './ForgetTokenButton.tsx';
import { readWriteToken, saveWriteToken, tokenProblem, userError } from './write-token.ts';
import './share.css';

export function ShareForm({ runIds, onCancel }: { runIds: string[]; onCancel: () => void }) {
  const share = useMutation({
    mutationFn: ({ token, title }: { token: string; title: string }) =>
      browseApi.createReport(runIds, token || undefined, title || undefined),
    onSuccess: (_, { token }) => {
      if (token) saveWriteToken(token);
    },
  });
  const [copied, setCopied] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const link = share.data ? new URL(share.data.url, window.location.origin).href : null;
  const needsToken = tokenProblem(share.error) !== null;

  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      // No clipboard (plain http, a locked-down browser): select it for the person to copy.
      input.current?.select();
    }
    setCopied(true);
  };

  const create = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const title = String(form.get('title') ?? '').trim();
    const token = form.has('token') ? String(form.get('token') ?? '').trim() : readWriteToken();
    share.mutate({ token, title });
  };

  if (link) {
    return (
      <div className="share" data-testid="share">
        <div className="share-link">
          <input
            ref={input}
            readOnly
            value={link}
            data-testid="share-link"
            aria-label={`Link to the report "${share.data?.title ?? ''}"`}
            onFocus={(e) => e.currentTarget.select()}
          />
          <button type="button" className="button" data-testid="share-copy" onClick={copy}>
            {copied ? 'Copied' : 'Copy'}
          </button>
          <a href={share.data?.url} target="_blank" rel="noreferrer">
            Open
          </a>
        </div>
      </div>
    );
  }
  return (
    <div className="share" data-testid="share">
      <form className="share-form" onSubmit={create} aria-label="Share as a report">
        <label htmlFor={`${id}-title`}>Report title</label>
        <input
          id={`${id}-title`}
          name="title"
          maxLength={200}
          placeholder="as the runs are named"
          data-testid="share-title"
          // biome-ignore lint/a11y/noAutofocus: the person just asked for this form
          autoFocus
        />
        {needsToken && (
          <>
            <label htmlFor={`${id}-token`}>Write token</label>
            <input
              id={`${id}-token`}
              name="token"
              type="password"
              placeholder="mb_…"
              autoComplete="off"
              data-testid="share-token"
            />
          </>
        )}
        <button
          type="submit"
          className="button button-primary"
          disabled={share.isPending}
          data-testid="share-create"
        >
          {share.isPending ? 'Sharing…' : 'Create link'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <ForgetTokenButton />
      </form>
      {share.isError && (
        <span className="share-error" role="alert" data-testid="share-error">
          {userError(share.error, 'share these runs')}
        </span>
      )}
    </div>
  );
}
