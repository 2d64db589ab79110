/** What a process runs: the partner API, settlement, or both (docs/spec.md §10). */
export type Role = 'api' | 'worker' | 'all';
