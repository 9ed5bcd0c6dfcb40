# meshbench API + web app, for docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
# python3, make and g++ build the StatsD listener's UDP addon (packages/udp-batch); without
# them it falls back to node:dgram, which loses datagrams sooner under load.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
RUN npm install -g pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build
ENV HOST=0.0.0.0 PORT=3000 STATSD_PORT=8125 STATSD_HOST=0.0.0.0
EXPOSE 3000 8125/udp 8125/tcp
CMD ["node", "apps/api/dist/server.js"]
