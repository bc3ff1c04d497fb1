-- wrk script for bench/loadgen_fidelity.sh: POST the seed's order to /order, as the
-- http-order clients do. The body is fixed (wrk is the reference: it should do the least work).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"buy_sell":"buy","symbol":2330,"price":100.0,"quantity":1000,'
    .. '"market_type":"common","price_type":"limit","time_in_force":"rod","order_type":"stock",'
    .. '"user_def":"wrk","client_timestamp":"2024-01-01T10:00:00.000Z"}'
