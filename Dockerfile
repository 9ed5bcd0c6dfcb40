# meshbench API + web app, for docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm install -g pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build
ENV HOST=0.0.0.0 PORT=3000 STATSD_PORT=8125
EXPOSE 3000 8125/udp 8125/tcp
CMD ["node", "apps/api/dist/server.js"]
