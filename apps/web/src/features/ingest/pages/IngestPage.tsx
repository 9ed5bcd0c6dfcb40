// Ingest: what this replica has taken on every ingest path since it started (event batches,
// result files, StatsD, OTLP metrics and logs, Prometheus remote write), and what it refused or dropped and why (the last rejected
// upload, malformed lines, metrics that matched no run, rejected data points), with how to
// send each. The first place to look when a runner's data does not show up.
import type {
  OtlpLogsStats,
  PrometheusWriteStats,
  StatsdStats,
  UploadCounters,
} from '@meshbench/schema';
import { useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { INGEST_REFRESH_MS, useIngestStats } from '../hooks/use-ingest-stats.ts';
import '../ingest.css';

const count = new Intl.NumberFormat('en-US');

interface Counter {
  id: string;
  label: string;
  value: number;
  /** Shown when the counter is above zero: what it means and what to do. */
  warn?: string;
}

function Counters({ items }: { items: Counter[] }) {
  return (
    <dl className="ingest-counters">
      {items.map((c) => (
        <div
          key={c.id}
          className={c.warn && c.value > 0 ? 'ingest-counter warn' : 'ingest-counter'}
        >
          <dt>{c.label}</dt>
          <dd data-testid={`ingest-${c.id}`}>{count.format(c.value)}</dd>
          {/* A second dd of the same term: a dl's groups hold only dt and dd (axe: definition-list). */}
          {c.warn && c.value > 0 && <dd className="ingest-hint">{c.warn}</dd>}
        </div>
      ))}
    </dl>
  );
}

function StatsdPanel({ s }: { s: StatsdStats }) {
  const host = window.location.hostname;
  return (
    <section className="panel ingest-panel" aria-labelledby="ingest-statsd">
      <div className="panel-head">
        <div>
          <h2 id="ingest-statsd">StatsD</h2>
          <p className="panel-sub" data-testid="ingest-statsd-listener">
            {s.enabled
              ? `UDP ${s.udpPort} and TCP ${s.tcpPort}; UDP read ${s.udpReceiver === 'batch' ? 'by a thread of its own (recvmmsg)' : "by Node's dgram socket"}`
              : 'Off: the API was started with STATSD_PORT=0.'}
          </p>
        </div>
      </div>
      <Counters
        items={[
          { id: 'datagrams', label: 'UDP datagrams', value: s.datagrams },
          { id: 'lines', label: 'Lines', value: s.lines },
          { id: 'samples', label: 'Values aggregated', value: s.samples },
          { id: 'rows', label: 'Rows written', value: s.rowsWritten },
          {
            id: 'malformed',
            label: 'Malformed lines',
            value: s.malformed,
            warn: 'Dropped: the last one and why is below.',
          },
          {
            id: 'unmatched',
            label: 'Matched no run',
            value: s.unmatched,
            warn: 'Dropped aggregates: tag metrics run:<run id or slug>, or env:<environment> while a run of that environment is in progress.',
          },
          {
            id: 'flush-errors',
            label: 'Failed writes (retried)',
            value: s.flushErrors,
            warn: 'The database failed or was away; the points were kept and written again. The API log says why.',
          },
          {
            id: 'backlog',
            label: 'Waiting to be written',
            value: s.backlogPoints,
            warn: `${s.backlogSamples} samples kept in memory until the database takes them (at most ${s.backlogMaxPoints} points).`,
          },
          {
            id: 'dropped-samples',
            label: 'Samples dropped',
            value: s.droppedSamples,
            warn: `Lost: ${s.droppedPoints} points past MESHBENCH_STATSD_BACKLOG_MAX_POINTS while the database was away, or refused by it.`,
          },
          {
            id: 'events',
            label: 'Events, service checks (skipped)',
            value: s.events + s.serviceChecks,
          },
        ]}
      />
      {s.lastMalformed && (
        <p className="ingest-last" data-testid="ingest-last-malformed">
          Last malformed line: <code>{s.lastMalformed}</code>
        </p>
      )}
      {s.enabled && (
        <pre className="ingest-how">
          {`echo "consul.xds.pushes:1|c|#run:<run id or slug>,node:n1" | nc -u -w0 ${host} ${s.udpPort}
# Telegraf-style tags (hot-shots with telegraf: true) are read the same way:
echo "consul.xds.pushes,run=<run id or slug>,node=n1:1|c" | nc -u -w0 ${host} ${s.udpPort}`}
        </pre>
      )}
    </section>
  );
}

function OtlpPanel({ s }: { s: StatsdStats }) {
  const origin = window.location.origin;
  return (
    <section className="panel ingest-panel" aria-labelledby="ingest-otlp">
      <div className="panel-head">
        <div>
          <h2 id="ingest-otlp">OTLP/HTTP metrics</h2>
          <p className="panel-sub">POST {origin}/v1/metrics, protobuf or JSON, gzip or not</p>
        </div>
      </div>
      <Counters
        items={[
          { id: 'otlp-requests', label: 'Requests', value: s.otlp.requests },
          { id: 'otlp-points', label: 'Data points', value: s.otlp.dataPoints },
          {
            id: 'otlp-rejected',
            label: 'Data points rejected',
            value: s.otlp.rejected,
            warn: 'Reported to the exporter in partial_success: no value, an unknown type, or no run (set the resource attribute meshbench.run, or deployment.environment).',
          },
          {
            id: 'otlp-overloaded',
            label: 'Answered 503 (busy)',
            value: s.otlp.overloaded,
            warn: 'Too many requests at once; exporters retry after the Retry-After the API sends.',
          },
        ]}
      />
      <pre className="ingest-how">
        {`OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=${origin}/v1/metrics
OTEL_RESOURCE_ATTRIBUTES=meshbench.run=<run id or slug>`}
      </pre>
    </section>
  );
}

function OtlpLogsPanel({ s }: { s: OtlpLogsStats }) {
  const origin = window.location.origin;
  return (
    <section className="panel ingest-panel" aria-labelledby="ingest-otlp-logs">
      <div className="panel-head">
        <div>
          <h2 id="ingest-otlp-logs">OTLP/HTTP logs (probe events)</h2>
          <p className="panel-sub">
            POST {origin}/v1/logs, protobuf or JSON, gzip or not: records named meshbench.change,
            meshbench.observation, ... are probe events (see docs/otlp-logs.md)
          </p>
        </div>
      </div>
      <Counters
        items={[
          { id: 'otlp-logs-requests', label: 'Requests', value: s.requests },
          { id: 'otlp-logs-records', label: 'Log records', value: s.records },
          { id: 'otlp-logs-events', label: 'Events stored', value: s.events },
          {
            id: 'otlp-logs-duplicates',
            label: 'Retried, stored once',
            value: s.duplicates,
          },
          {
            id: 'otlp-logs-rejected',
            label: 'Log records rejected',
            value: s.rejected,
            warn: 'Reported to the exporter in partial_success: not a meshbench.* event (set event_name or the event.name attribute), or no run (set meshbench.run on the resource, or deployment.environment).',
          },
        ]}
      />
      <pre className="ingest-how">
        {`OTEL_EXPORTER_OTLP_LOGS_ENDPOINT=${origin}/v1/logs
OTEL_RESOURCE_ATTRIBUTES=meshbench.run=<run id or slug>
# a record: event_name meshbench.observation,
# attributes change, proxy, node; its time the observation's`}
      </pre>
    </section>
  );
}

function PrometheusPanel({ s }: { s: PrometheusWriteStats }) {
  const origin = window.location.origin;
  return (
    <section className="panel ingest-panel" aria-labelledby="ingest-prometheus">
      <div className="panel-head">
        <div>
          <h2 id="ingest-prometheus">Prometheus remote write</h2>
          <p className="panel-sub">
            POST {origin}/api/v1/write, Remote-Write 1.0 or 2.0 (see docs/prometheus.md)
          </p>
        </div>
      </div>
      <Counters
        items={[
          { id: 'prw-requests', label: 'Requests', value: s.requests },
          { id: 'prw-samples', label: 'Samples', value: s.samples },
          { id: 'prw-histograms', label: 'Native histograms', value: s.histograms },
          { id: 'prw-written', label: 'Written', value: s.written },
          {
            id: 'prw-held',
            label: 'Kept for a later run',
            value: s.held,
            warn: 'Matched no run yet: kept for a run of their env label created later, or set the label meshbench_run.',
          },
          {
            id: 'prw-refused',
            label: 'Refused (400)',
            value: s.refused,
            warn: 'Prometheus logged the reason and does not resend these: a series without __name__, a run the token may not write, a sample outside its run, an invalid histogram.',
          },
          {
            id: 'prw-overloaded',
            label: 'Answered 503 (busy)',
            value: s.overloaded,
            warn: 'Too many requests at once; Prometheus retries after the Retry-After the API sends.',
          },
        ]}
      />
      <pre className="ingest-how">
        {`remote_write:
  - url: ${origin}/api/v1/write
    authorization:
      credentials: <write token>
    write_relabel_configs:
      - target_label: meshbench_run
        replacement: <run id or slug>`}
      </pre>
    </section>
  );
}

function UploadPanel({
  id,
  title,
  how,
  item,
  c,
}: {
  id: 'events' | 'results';
  title: string;
  how: string;
  item: string;
  c: UploadCounters;
}) {
  return (
    <section className="panel ingest-panel" aria-labelledby={`ingest-${id}`}>
      <div className="panel-head">
        <div>
          <h2 id={`ingest-${id}`}>{title}</h2>
          <p className="panel-sub">{how}</p>
        </div>
      </div>
      <Counters
        items={[
          { id: `${id}-stored`, label: 'Uploads stored', value: c.stored },
          { id: `${id}-items`, label: item, value: c.items },
          ...(id === 'events'
            ? [
                {
                  id: `${id}-duplicates`,
                  label: 'Retries (stored once)',
                  value: c.duplicates,
                },
              ]
            : []),
          {
            id: `${id}-rejected`,
            label: 'Rejected (4xx)',
            value: c.rejected,
            warn: 'Nothing of a rejected upload is stored: fix what the last rejection names and send it again.',
          },
        ]}
      />
      {c.lastRejection && (
        <p className="ingest-last" data-testid={`ingest-${id}-last-rejection`}>
          Last rejection ({c.lastRejection.status}, {c.lastRejection.at.slice(11, 19)} UTC):{' '}
          <code>{c.lastRejection.message}</code>
        </p>
      )}
    </section>
  );
}

export function IngestPage() {
  const stats = useIngestStats();
  useDocumentTitle('Ingest');
  return (
    <div className="ingest-page">
      <h1>Ingest</h1>
      <p className="muted">
        What this API replica has received since it started, on every ingest path, refreshed every{' '}
        {INGEST_REFRESH_MS / 1000} s. Prometheus can scrape the same counters at{' '}
        <a href="/metrics">/metrics</a>.
      </p>
      {stats.isPending ? (
        <Loading what="ingest counters" />
      ) : stats.isError ? (
        <ErrorMessage error={stats.error} what="ingest counters" />
      ) : (
        <>
          {stats.data.messagesShown !== 'all' && (
            <p className="muted" data-testid="ingest-messages-scope">
              {stats.data.messagesShown === 'project'
                ? "Last rejections are your token's project's own; the last malformed StatsD line is shown to the admin token only."
                : 'Last rejections and malformed lines are shown only with a token: give this browser a write token (upload or share) to see your project’s.'}
            </p>
          )}
          <div className="ingest-grid">
            <UploadPanel
              id="events"
              title="Probe events"
              how="POST /api/v1/runs/{id}/events, NDJSON or a JSON array, gzip or not"
              item="Events stored"
              c={stats.data.events}
            />
            <UploadPanel
              id="results"
              title="Load-test result files"
              how="POST /api/v1/runs/{id}/results: Fortio, Nighthawk, k6, wrk, wrk2, SMP, Istio's CSV, HdrHistogram logs, Locust, hey, JMeter, Vegeta, ghz, oha, Gatling"
              item="Load results stored"
              c={stats.data.results}
            />
            <StatsdPanel s={stats.data.statsd} />
            <OtlpPanel s={stats.data.statsd} />
            <OtlpLogsPanel s={stats.data.otlpLogs} />
            <PrometheusPanel s={stats.data.prometheus} />
          </div>
        </>
      )}
    </div>
  );
}
