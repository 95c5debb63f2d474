/** `code` with each function literal assigned straight to a property wrapped in `(0, …)`, and how many there were (young-function-literals.mjs). */
export declare function youngFunctionLiterals(code: string): { code: string; count: number };
