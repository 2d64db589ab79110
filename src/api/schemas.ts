/** Request and response schemas (TypeBox), one per wire shape; the OpenAPI document is generated from them. */
export { AMOUNT_PATTERN, QUOTE_ID_PATTERN, TRACKING_ID_PATTERN } from './schemas/fields.ts';
export { NotModified, STATUS_CACHING, documented, errorResponses } from './schemas/responses.ts';
export { QuoteRequestBody, QuoteResponse, TokensResponse } from './schemas/quote-schemas.ts';
export { DepositHintBody, EmptyBody, OrderCreatedResponse, OrderRequestBody, OrderResponse, StatusRecordResponse, StatusResponse, TrackingIdParams, WebhookTestResponse } from './schemas/order-schemas.ts';
export { OPERATION_ERRORS, type OperationId } from './schemas/operation-errors.ts';
export { ReceiptKeysResponse, ReceiptResponse } from './schemas/receipt-schemas.ts';
export { finishDocument } from './schemas/named-schemas.ts';
export { API_DESCRIPTION } from './schemas/api-description.ts';
