/** IPC channel names, kept apart from the schemas so the preload bundle stays tiny (no zod). */
export const IPC_REQUEST = 'switchboard:request';
export const IPC_EVENT = 'switchboard:event';
export const IPC_SHELL = 'switchboard:shell';
