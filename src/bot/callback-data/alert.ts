/**
 * The alert buttons' codec, found here with every other kind. It is defined in
 * `src/alerts/callbacks.ts` because the alert formatter encodes it and must not import upward
 * from `bot/` (see `index.ts`); this module only re-exports it.
 */
export { ALERT_CALLBACK_PREFIX, decodeAlertAction, encodeAlertAction, type AlertAction } from '../../alerts/callbacks.js';
