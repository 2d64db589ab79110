/** The log the settlement parts write to (pino's shape), declared apart so that they need not import the context. */
export type Log = (obj: Record<string, unknown>, msg: string) => void;
