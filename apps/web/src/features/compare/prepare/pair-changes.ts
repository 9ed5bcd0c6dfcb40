// Which change of each run is compared with which: the API's own rule (the compare read
// answers the summaries of these pairs), from the shared schema package.
export { type ChangePair, pairChanges } from '@meshbench/schema';
