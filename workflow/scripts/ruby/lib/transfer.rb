# frozen_string_literal: true

require "json"
require "net/http"
require "webrick"
require_relative "checks"
require_relative "errors"
require_relative "library"
require_relative "timing"

# Suite transfer: a whole dataset as one signed token, posted to a local HTTP server.
#
# The server is WEBrick (Debian's ruby-webrick) on 127.0.0.1 (a free port), served from a
# thread of the worker; the client is Net::HTTP, one keep-alive connection per cell. Both
# start, and the server is checked, before the worker's hello. While one thread signs or
# verifies, the other waits in a socket read, which releases Ruby's global VM lock.
class Transfer
  class Failed < StandardError; end

  # A transfer body is {"dataset": NAME, "records": [...]}.
  def self.check_body(body, where)
    return if body["dataset"].is_a?(String) && body["records"].is_a?(Array)

    raise UsageError, "input #{where}: not a transfer body ({\"dataset\": NAME, \"records\": [...]})"
  end

  def initialize(jws_case, request_timeout)
    @case = jws_case
    @records = jws_case.claims["records"].size
    @server = WEBrick::HTTPServer.new(BindAddress: "127.0.0.1", Port: 0, Logger: WEBrick::Log.new($stderr, WEBrick::Log::ERROR),
                                      AccessLog: [], DoNotReverseLookup: true)
    @server.mount_proc("/") { |request, response| receipt(request, response) }
    @thread = Thread.new { @server.start }
    @client = Net::HTTP.new("127.0.0.1", @server.listeners.first.addr[1])
    @client.open_timeout = @client.read_timeout = @client.write_timeout = request_timeout
    @client.keep_alive_timeout = request_timeout
    @client.start
    check_server
  rescue StandardError
    close
    raise
  end

  # POST a compact JWS as application/jwt: 200 and a receipt signed with the cell's key, or
  # 401 when the token does not verify.
  def receipt(request, response)
    raise WEBrick::HTTPStatus::MethodNotAllowed unless request.request_method == "POST"

    token = request.body.to_s
    start = Timing.clock
    begin
      claims = JWS.verify(token, @case.verifying_key, @case.alg)
    rescue *JWS::INVALID
      response.status = 401
      return
    end
    verify_ns = Timing.clock - start
    receipt = { "dataset" => claims["dataset"], "records" => claims["records"].size,
                "received_bytes" => token.bytesize, "verify_ns" => verify_ns }
    response.status = 200
    response["Content-Type"] = "application/jwt"
    response.body = JWS.sign(receipt, @case.signing_key, @case.alg)
  end

  def post(token)
    response = @client.post("/", token, "Content-Type" => "application/jwt")
    [response.code.to_i, response.body.to_s]
  end

  # The body's token with a flipped signature bit, and unsigned, must each get 401.
  def check_server
    token = @case.tokens.first
    { "a token with a flipped signature bit" => Checks.flipped(token),
      "an alg:none token" => Checks.unsigned(token) }.each do |what, forged|
      status, = guarded { post(forged) }
      raise Failed, "the server answered #{status} to #{what}, not 401" unless status == 401
    end
  end

  # The block's request, a failure of it (the connection, a timeout, the receipt) raised as
  # Failed, the connection restarted for the next.
  def guarded
    yield
  rescue StandardError => e
    raise if e.is_a?(Failed)

    @client.finish if @client.started?
    @client.start
    raise Failed, one_line(e)
  end

  # One trial: sign the body, post it, verify the receipt and check it. Returns [the token's
  # bytes, the client's sign ns, the server's verify ns from the receipt].
  def trial
    start = Timing.clock
    token = JWS.sign(@case.claims, @case.signing_key, @case.alg)
    signed = Timing.clock
    status, answer = guarded { post(token) }
    raise Failed, "the server answered #{status}, not 200" unless status == 200

    receipt = guarded { JWS.verify(answer, @case.verifying_key, @case.alg) }
    unless receipt["records"] == @records && receipt["received_bytes"] == token.bytesize
      raise Failed, "receipt says records=#{receipt['records'].inspect}, received_bytes=" \
                    "#{receipt['received_bytes'].inspect}; sent records=#{@records}, #{token.bytesize} bytes"
    end
    verify_ns = receipt["verify_ns"]
    raise Failed, "receipt's verify_ns #{verify_ns.inspect} is not a count of ns" unless verify_ns.is_a?(Integer) && verify_ns >= 0

    [token.bytesize, signed - start, verify_ns]
  end

  def batch(n)
    sink = 0
    n.times do
      @last = trial
      sink += @last[0]
    end
    sink
  end

  def answer(n, _sink)
    return {} unless n == 1

    token_bytes, sign_ns, verify_ns = @last
    { "output_bytes" => token_bytes, "parts" => { "sign" => sign_ns, "verify" => verify_ns } }
  end

  def close
    @client.finish if @client&.started?
    @server&.shutdown
    @thread&.join(5)
  end
end
