export { TemplateError, TemplateRenderer, type TemplateLoader, type TemplateRequest } from './render.js';
export { TEMPLATE_LIMITS, type TemplateLimits } from './limits.js';
export type { TemplateExtras } from './go-facts.js';
export { mayHoldTemplates } from './documents.js';
