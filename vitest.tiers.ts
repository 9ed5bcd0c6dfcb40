// The test tiers, by file name, for the packages whose suites hold more than one:
//   unit    *.test.ts that are none of the others: pure, no socket, no database
//   medium  *.medium.test.ts: services and repositories called directly, no HTTP, on a real
//           database (embedded and DATABASE_URL), built by the factories of test/medium.ts
//   int     *.int.test.ts: a real HTTP server, a real database (embedded and DATABASE_URL)
//   faults  *.faults.test.ts: kills, aborts, restarts and outages of real processes
// MESHBENCH_TEST_TIER picks one; unset, a suite runs unit, medium and int (`pnpm test` in a
// package).
const NODE_MODULES = '**/node_modules/**';

export type TestTier = 'unit' | 'medium' | 'int' | 'faults';

export function tierFiles(tier = process.env.MESHBENCH_TEST_TIER) {
  switch (tier) {
    case 'unit':
      return {
        include: ['src/**/*.test.ts'],
        exclude: [
          'src/**/*.int.test.ts',
          'src/**/*.medium.test.ts',
          'src/**/*.faults.test.ts',
          NODE_MODULES,
        ],
      };
    case 'medium':
      return { include: ['src/**/*.medium.test.ts'], exclude: [NODE_MODULES] };
    case 'int':
      return { include: ['src/**/*.int.test.ts'], exclude: [NODE_MODULES] };
    case 'faults':
      return { include: ['src/**/*.faults.test.ts'], exclude: [NODE_MODULES] };
    case undefined:
    case '':
      return { include: ['src/**/*.test.ts'], exclude: ['src/**/*.faults.test.ts', NODE_MODULES] };
    default:
      throw new Error(`MESHBENCH_TEST_TIER=${tier}: expected unit, medium, int or faults`);
  }
}
