{
  "targets": [
    {
      "target_name": "udp_batch",
      "sources": ["udp_batch.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
