/** The one logger's shape: server-side failures are reported here, never to the caller. */
/** Where server-side failures are reported; console.error unless injected. */
export type Log = (message: string, error?: unknown) => void;
export const defaultLog: Log = (message, error) => console.error(message, error);
