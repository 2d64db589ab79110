/** The wire shapes, picked out of the types generated from the server's OpenAPI document (never restated). */
import type { components, operations } from './generated/openapi.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R } ? Json<R> : never;
type Created<Op extends keyof operations> = operations[Op]['responses'] extends { 201: infer R } ? Json<R> : never;
type Body<Op extends keyof operations> = operations[Op]['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

export type ErrorCode = components['schemas']['ErrorCode'];
export type Token = Ok<'listTokens'>['tokens'][number];
export type QuoteRequest = Body<'createQuote'>;
export type Quote = Ok<'createQuote'>['quote'];
export type OrderRequest = Body<'createOrder'>;
/** What the order must repeat from the quote request (docs/spec.md §4: any difference is QUOTE_MISMATCH). */
export type OrderTerms = Omit<OrderRequest, 'quote'>;
export type Order = Ok<'createOrder'>['order'];
export type StatusRecord = Ok<'getStatus'>['order'];
export type OrderStatus = StatusRecord['status'];
export type DepositHint = Body<'sendDepositHint'>;
/** docs/spec.md §12: a final order's signed disclosure receipt, and the keys that sign them. */
export type Receipt = Ok<'getReceipt'>['receipt'];
export type ReceiptKey = Ok<'listReceiptKeys'>['keys'][number];
/** The partner's own account (self-service): its settings, keys and webhook, never a secret. */
export type Account = Ok<'getAccount'>['account'];
export type ApiKeyInfo = Account['keys'][number];
/** A webhook with its new signing secret (shown once) and until when the replaced one still signs. */
export type WebhookSecret = Omit<Ok<'setWebhook'>, 'success'>;
/** A new API key: its full value (shown once) and its listing. */
export type CreatedApiKey = Omit<Created<'createApiKey'>, 'success'>;
