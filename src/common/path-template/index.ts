/** AIMService route paths: JSONPath templates, docs/aim.md's normalisation, and template precedence. */
export { encodeSegment, MAX_ROUTE_PATH_LENGTH, type NormalizeResult, normalizeRoutePath } from './normalize.ts';
export {
  MAX_PLACEHOLDER_LENGTH,
  MAX_TEMPLATE_LENGTH,
  type PathTemplateError,
  type PathTemplateResult,
  renderPathTemplate,
  validatePathTemplate,
} from './render.ts';
export {
  type RoutedService,
  type RoutePathResult,
  type RoutePathSource,
  RUNTIME_CONFIG_PATH_TEMPLATE_FIELD,
  resolveServiceRoutePath,
  SERVICE_PATH_TEMPLATE_FIELD,
} from './route-path.ts';
