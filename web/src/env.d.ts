// Vite imports stylesheets for their side effect; tell the type checker such imports exist.
declare module '*.css';
