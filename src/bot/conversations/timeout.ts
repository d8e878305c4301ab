/** How long a conversation waits for each answer before it quietly ends (and is swept from memory). */
export const FLOW_TIMEOUT_MS = 15 * 60_000;
