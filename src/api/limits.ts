/** docs/spec.md §7 body limit for every endpoint. */
export const BODY_LIMIT = 64 * 1024;
