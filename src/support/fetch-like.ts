/**
 * Hush's outbound HTTP (the chain's RPC, a risk API, price sources), as one port: the global fetch in
 * production, recorded answers in a test, the simulator's network in a simulated run (`npm run sim`), where
 * no socket is opened and the fault plan reaches every request.
 */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

/** The global fetch (undici): what production wires, and a part's default when its host gives none. */
export const globalFetch: FetchLike = (url, init) => fetch(url, init);
