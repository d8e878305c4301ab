/**
 * Method parameters, validated at the fake's edge. Numbers and booleans may arrive as text (form
 * bodies) and objects as JSON text, as the real Bot API allows.
 */
import { z } from 'zod';

const jsonText = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};
const boolText = (v: unknown): unknown => (v === 'true' ? true : v === 'false' ? false : v);

const json = <T extends z.ZodType>(schema: T) => z.preprocess(jsonText, schema);
const int = z.coerce.number().int();
const bool = z.preprocess(boolText, z.boolean());

/** A chat id: a number (or its text); `@username` is not supported by the fake. */
export const chatIdSchema = z.union([int, z.string().regex(/^-?\d+$/).transform(Number)]);

const inlineButtonSchema = z
  .object({
    text: z.string(),
    callback_data: z.string().optional(),
    url: z.string().optional(),
    switch_inline_query: z.string().optional(),
    switch_inline_query_current_chat: z.string().optional(),
    copy_text: z.object({ text: z.string() }).optional(),
    web_app: z.object({ url: z.string() }).optional(),
    login_url: z.object({ url: z.string() }).optional(),
    pay: z.boolean().optional(),
  })
  .loose();
export type InlineButton = z.infer<typeof inlineButtonSchema>;

export const inlineKeyboardSchema = z.object({ inline_keyboard: z.array(z.array(inlineButtonSchema)) });
export type InlineKeyboard = z.infer<typeof inlineKeyboardSchema>;

export const replyMarkupSchema = json(
  z.union([
    inlineKeyboardSchema,
    z.object({ keyboard: z.array(z.array(z.unknown())) }).loose(),
    z.object({ remove_keyboard: z.literal(true) }).loose(),
    z.object({ force_reply: z.literal(true) }).loose(),
  ]),
);

const parseModeSchema = z.string().optional();
const linkPreviewSchema = json(z.object({ is_disabled: z.boolean().optional() }).loose()).optional();

export const sendMessageSchema = z.object({
  chat_id: chatIdSchema,
  text: z.string().optional(),
  parse_mode: parseModeSchema,
  reply_markup: replyMarkupSchema.optional(),
  reply_to_message_id: int.optional(),
  reply_parameters: json(
    z.object({ message_id: int, allow_sending_without_reply: bool.optional() }).loose(),
  ).optional(),
  allow_sending_without_reply: bool.optional(),
  link_preview_options: linkPreviewSchema,
  disable_notification: bool.optional(),
});

/** An uploaded file as `readPayload` hands it (multipart), or a file_id / URL string. */
const inputFileSchema = z.union([z.object({ file: z.string(), size: z.number(), bytes: z.instanceof(Buffer) }), z.string().min(1)]);

export const sendPhotoSchema = z.object({
  chat_id: chatIdSchema,
  photo: inputFileSchema,
  caption: z.string().optional(),
  parse_mode: parseModeSchema,
  reply_markup: replyMarkupSchema.optional(),
  disable_notification: bool.optional(),
});

export const sendDocumentSchema = z.object({
  chat_id: chatIdSchema,
  document: inputFileSchema,
  caption: z.string().optional(),
  parse_mode: parseModeSchema,
  reply_markup: replyMarkupSchema.optional(),
  disable_notification: bool.optional(),
});

export const editMessageTextSchema = z.object({
  chat_id: chatIdSchema.optional(),
  message_id: int.optional(),
  inline_message_id: z.string().optional(),
  text: z.string().optional(),
  parse_mode: parseModeSchema,
  reply_markup: json(inlineKeyboardSchema).optional(),
  link_preview_options: linkPreviewSchema,
});

export const editReplyMarkupSchema = z.object({
  chat_id: chatIdSchema.optional(),
  message_id: int.optional(),
  inline_message_id: z.string().optional(),
  reply_markup: json(inlineKeyboardSchema).optional(),
});

export const deleteMessageSchema = z.object({ chat_id: chatIdSchema, message_id: int });

export const getUpdatesSchema = z.object({
  offset: int.optional(),
  limit: int.min(1).max(100).optional(),
  timeout: z.coerce.number().min(0).optional(),
  allowed_updates: json(z.array(z.string())).optional(),
});

export const answerCallbackSchema = z.object({
  callback_query_id: z.string(),
  text: z.string().max(200).optional(),
  show_alert: bool.optional(),
  url: z.string().optional(),
  cache_time: int.optional(),
});

export const answerInlineSchema = z.object({
  inline_query_id: z.string(),
  results: json(z.array(z.object({ type: z.string(), id: z.string() }).loose()).max(50)),
  cache_time: int.optional(),
  is_personal: bool.optional(),
  next_offset: z.string().optional(),
  button: json(z.object({ text: z.string() }).loose()).optional(),
});

const scopeSchema = json(z.object({ type: z.string() }).loose()).optional();

export const setMyCommandsSchema = z.object({
  commands: json(
    z
      .array(
        z.object({
          command: z.string().regex(/^[a-z0-9_]{1,32}$/, { error: 'BOT_COMMAND_INVALID' }),
          description: z.string().min(1).max(256),
        }),
      )
      .max(100),
  ),
  scope: scopeSchema,
  language_code: z.string().optional(),
});

export const commandScopeSchema = z.object({ scope: scopeSchema, language_code: z.string().optional() });

export const setDescriptionSchema = z.object({
  description: z.string().max(512).optional(),
  short_description: z.string().max(120).optional(),
  language_code: z.string().optional(),
});

export const chatOnlySchema = z.object({ chat_id: chatIdSchema });
export const chatMemberSchema = z.object({ chat_id: chatIdSchema, user_id: int });
export const chatActionSchema = z.object({ chat_id: chatIdSchema, action: z.string() });
export const deleteWebhookSchema = z.object({ drop_pending_updates: bool.optional() });
export const setWebhookSchema = z.object({
  url: z.string(),
  secret_token: z
    .string()
    .regex(/^[\w-]{1,256}$/, { error: 'Bad Request: secret token contains unallowed characters' })
    .optional(),
  allowed_updates: json(z.array(z.string())).optional(),
  drop_pending_updates: bool.optional(),
  max_connections: int.optional(),
});

/** MenuButton (Bot API): commands, default, or web_app with its text and an https WebAppInfo. */
export const menuButtonSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('commands') }),
  z.object({ type: z.literal('default') }),
  z.object({ type: z.literal('web_app'), text: z.string().min(1).max(64), web_app: z.object({ url: z.string().regex(/^https:\/\/\S+$/, { error: 'BUTTON_URL_INVALID' }) }) }),
]);
export const setChatMenuButtonSchema = z.object({ chat_id: z.coerce.number().int().optional(), menu_button: json(menuButtonSchema).optional() });
export const getChatMenuButtonSchema = z.object({ chat_id: z.coerce.number().int().optional() });
