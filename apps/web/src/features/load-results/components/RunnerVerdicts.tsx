// What the run's load results say beyond their numbers: the runner's own threshold verdicts
// (k6) and points no request was sent for. A view of loadVerdicts; nothing when there is none.
import type { LoadVerdict } from '../../../charts/prepare/load-verdicts.ts';

export function RunnerVerdicts({ verdicts }: { verdicts: LoadVerdict[] }) {
  if (verdicts.length === 0) return null;
  return (
    <ul className="runner-verdicts" data-testid="runner-verdicts" aria-label="Runner verdicts">
      {verdicts.map((v, i) => (
        <li key={i} data-testid="runner-verdict">
          <strong>{v.point}</strong>
          {v.nothingSent && (
            <span className="verdict-fail"> sent no request: no latency to show</span>
          )}
          {v.thresholds.length > 0 && (
            <>
              {': '}
              <span className={v.crossed > 0 ? 'verdict-fail' : 'verdict-ok'}>
                {v.crossed > 0
                  ? `${v.crossed} of ${v.thresholds.length} thresholds crossed`
                  : `all ${v.thresholds.length} thresholds held`}
              </span>{' '}
              <span className="muted">(the runner&apos;s own verdict)</span>
              <ul className="verdict-thresholds">
                {v.thresholds.map((t) => (
                  <li key={`${t.metric} ${t.threshold}`} data-ok={t.ok}>
                    <span aria-hidden="true">{t.ok ? '✓' : '✗'}</span>{' '}
                    <span className="mono">
                      {t.metric} {t.threshold}
                    </span>{' '}
                    <span className={t.ok ? 'verdict-ok' : 'verdict-fail'}>
                      {t.ok ? 'held' : 'crossed'}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
