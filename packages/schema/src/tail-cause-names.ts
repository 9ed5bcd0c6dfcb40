// The cause names runners send (as an observation's `cause` or an incident's `kind`), each
// with what it is and what it implies, and the two the API assigns itself. Shared: the tail
// answers carry a cause's description, the web shows it. docs/tail.md lists the same.
// The names are the demo's and DESIGN's incident kinds; what they mean follows the Consul
// Global Scale Benchmark's account of its tail (seeds/001: "TCP connection drop-offs where
// the agents would go into a retry and backoff ... packet loss and TCP retransmits").

/** Said of a cause no entry describes: the runner chose the name, meshbench only repeats it. */
export const NO_CAUSE_DESCRIPTION = 'no description: named by the runner';

/** One sentence each: what happened, then what it implies for the change's delay. */
export const CAUSE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  reconnect:
    "The proxy's agent lost its connection to the control plane and connected again; the change came with the resync after it, so the delay is the time to notice the drop plus the reconnect.",
  'reconnect-backoff':
    "The agent's reconnects kept failing and it waited in backoff between attempts; delays of a minute or more point at repeated connection failures, not at the control plane's push.",
  'retry-backoff':
    'A request to the control plane (a push, a fetch, a registration) failed and was retried after a growing wait; the path to the servers was unreliable for the length of the delay.',
  'tcp-retransmits':
    'The connection stayed up but TCP had to resend lost segments; the config arrived late over a lossy or congested link rather than after a disconnect.',
  'packet-loss':
    'Packets between the agent and the servers were dropped; expect retransmits and slow delivery, and look at the network path, not at the control plane.',
  'agent-restart':
    'The agent beside the proxy restarted; its proxies got the change only after it came back and resynced, or never if it stayed down.',
  'leader-election':
    'The control-plane servers were electing a leader; writes and pushes wait for it, so every proxy they serve is late by the length of the election.',
  unexplained:
    'The runner sent no cause and no incident overlaps the change → application interval; meshbench cannot say why, which is not evidence that nothing happened.',
  'never-converged':
    'Expected to apply the change but never reported it before the run ended; it has no latency and is in no percentile.',
};

/** What a cause name means, or that the runner named it without a description. */
export function causeDescription(cause: string): { description: string; described: boolean } {
  const known = Object.hasOwn(CAUSE_DESCRIPTIONS, cause) ? CAUSE_DESCRIPTIONS[cause] : undefined;
  return known === undefined
    ? { description: NO_CAUSE_DESCRIPTION, described: false }
    : { description: known, described: true };
}
