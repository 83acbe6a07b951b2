// Type-checking stand-in for @xmldom/xmldom (tsconfig.json "paths"): samlify, which Better Auth's SSO plugin uses,
// ships xmldom 0.8, whose types pull the browser's DOM library into every Node program that imports them, and with
// it the DOM's fetch and stream types. Nothing in Throng calls xmldom itself; the runtime module is untouched.
export declare const DOMParser: new (options?: unknown) => { parseFromString(xml: string, mimeType?: string): any };
export declare const XMLSerializer: new () => { serializeToString(node: unknown): string };
export declare const DOMImplementation: new () => any;
export type Node = any;
export type Document = any;
export type Element = any;
