// A run's gate verdict: null when no threshold applied (GET /runs/{id}/gate answers 404).
import type { GateResult } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { ApiRequestError, meshbench } from '../../../api/client.ts';

/** `gated`: false when the run's answer says no verdict is kept (nothing is asked then). */
export function useGate(runId: string, gated?: boolean) {
  return useQuery({
    queryKey: ['gate', runId],
    queryFn: async ({ signal }): Promise<GateResult | null> => {
      try {
        return await meshbench.runs.gate(runId, { signal });
      } catch (error) {
        if (error instanceof ApiRequestError && error.status === 404) return null;
        throw error;
      }
    },
    enabled: runId !== '' && gated !== false,
  });
}
