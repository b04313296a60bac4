// CRD conversion: strategy None (apiVersion rewrite) and Webhook (ConversionReview v1/v1beta1).
export { ObjectConverter } from './converter.ts';
export {
  CONVERSION_TIMEOUT_MS,
  type ConversionWebhookConfig,
  callConversionWebhook,
  gvkString,
} from './webhook-conversion.ts';
