/**
 * Telegram calls whose failure does not matter: editing an old message, a chat action, taking
 * buttons off. grammY's context shortcuts throw synchronously when the update lacks what the
 * call needs (a button on an inaccessible message has no message id), which `.catch()` on the
 * returned promise never sees; `quietly` takes the call as a function, so both kinds end here.
 */
export async function quietly(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch {
    return false;
  }
}
