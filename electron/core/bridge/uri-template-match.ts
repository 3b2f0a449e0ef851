import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';

/** Whether a resource URI matches a URI template (the SDK's own RFC 6570 matcher). */
export function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false; // a template the SDK cannot parse matches nothing
  }
}

/** How much of a URI template is literal: its characters outside `{…}` expressions. */
export function literalLength(template: string): number {
  return template.replace(/\{[^}]*\}/g, '').length;
}
