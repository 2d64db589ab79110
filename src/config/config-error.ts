/** An operator setting Hush refuses to start with; its message names the variable and what it takes. */
export class ConfigError extends Error {}
