/// <reference types="vitest/config" />
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The gateway serves dist/ at the site root with an SPA fallback, so the
// app is built for base '/' and keeps Vite's default hashed assets/ names.
export default defineConfig({
  base: '/',
  plugins: [react(), tailwindcss()],
  resolve: {
    // "@/..." imports, read from tsconfig.json "paths".
    tsconfigPaths: true,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/testing/setup-tests.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    restoreMocks: true,
    testTimeout: 60_000,
    unstubGlobals: true,
  },
})
