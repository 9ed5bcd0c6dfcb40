// "Share": freezes what the page shows for these runs into a report, and hands over its
// link to copy. Anyone with the link can read the report, and nothing else. Creating one is
// a write: it carries the write token this browser keeps, and asks for one when refused.
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { ApiRequestError, browseApi } from '../api/client.ts';
import { readWriteToken, saveWriteToken } from './write-token.ts';
import './share.css';

export function ShareButton({ runIds }: { runIds: string[] }) {
  const share = useMutation({
    mutationFn: (token: string) => browseApi.createReport(runIds, token || undefined),
  });
  const [copied, setCopied] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const link = share.data ? new URL(share.data.url, window.location.origin).href : null;
  const needsToken = share.error instanceof ApiRequestError && share.error.status === 401;

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

  const shareWithToken = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = String(new FormData(event.currentTarget).get('token') ?? '').trim();
    saveWriteToken(token);
    share.mutate(token);
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
            aria-label="Link to the report"
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
      {needsToken ? (
        <form className="share-token" onSubmit={shareWithToken}>
          <input
            name="token"
            type="password"
            placeholder="write token"
            aria-label="Write token"
            autoComplete="off"
            defaultValue={readWriteToken()}
          />
          <button type="submit" className="button" disabled={share.isPending}>
            Share
          </button>
        </form>
      ) : (
        <button
          type="button"
          className="button"
          data-testid="share-button"
          disabled={share.isPending}
          onClick={() => share.mutate(readWriteToken())}
          title="Freeze these numbers into a report anyone with the link can open"
        >
          {share.isPending ? 'Sharing…' : 'Share'}
        </button>
      )}
      {share.isError && (
        <span className="share-error" role="alert">
          {needsToken
            ? 'Sharing needs a write token for these runs.'
            : `Could not share: ${share.error.message}`}
        </span>
      )}
    </div>
  );
}
