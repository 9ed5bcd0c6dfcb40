// A bench's budgets. Each is printed beside the figure it judges and collected here; when
// any was missed the process exits 1, so a regression shows in the exit code and not only
// in a line someone has to read.
const missed: string[] = [];

/** Records whether `name` was met and returns the word to print beside its figure. */
export function budget(name: string, met: boolean): 'met' | 'MISSED' {
  if (!met) missed.push(name);
  return met ? 'met' : 'MISSED';
}

/** Prints the missed budgets, if any, and sets the exit code to 1 for them. */
export function reportBudgets(bench: string): void {
  if (missed.length === 0) {
    console.log(`  ${bench}: every budget met`);
    return;
  }
  console.log(`  ${bench}: budget MISSED: ${missed.join('; ')}`);
  process.exitCode = 1;
}
