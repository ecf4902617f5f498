/** The shortest token secret the dashboard and the HTTP API accept. */
export const MIN_TOKEN_LENGTH = 16;

/** A token's name as the audit records it: letters, digits, `.`, `_`, `@` and `-`, up to 64. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
