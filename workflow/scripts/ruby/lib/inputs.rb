# frozen_string_literal: true

require "json"
require_relative "errors"

# A cell's inputs (workflow/scripts/README.md, "Inputs: claims and records"): the parsed claims
# its calls take in turn, and each one's size in bytes.
Inputs = Struct.new(:claims, :sizes) do
  # `claims`: the file is one JSON object; `records`: JSON Lines, one object a line, a
  # record's bytes being its line without the newline. Raises UsageError naming the file.
  def self.load(path, kind)
    data = File.binread(path)
    return new([parse(data, "input #{path}")], [data.bytesize]) if kind == "claims"

    lines = data.split("\n", -1)
    lines.pop if lines.last == ""
    raise UsageError, "input #{path}: no records" if lines.empty?

    claims = lines.each_with_index.map do |line, index|
      raise UsageError, "input #{path}:#{index + 1}: blank line" if line.empty?

      parse(line, "input #{path}:#{index + 1}")
    end
    new(claims, lines.map(&:bytesize))
  rescue SystemCallError => e
    raise UsageError, "cannot read input #{path}: #{e.message}"
  end

  # The JSON object `text` holds; UsageError naming `where` (a file, a line) if it holds none.
  def self.parse(text, where)
    value = JSON.parse(text)
    raise UsageError, "#{where}: not a JSON object" unless value.is_a?(Hash)

    value
  rescue JSON::ParserError, EncodingError => e
    raise UsageError, "#{where}: not JSON: #{one_line(e)}"
  end

  def mean_bytes
    Inputs.rounded_mean(sizes)
  end

  # The mean of non-negative integers, rounded to the nearest integer, halves up.
  def self.rounded_mean(values)
    (2 * values.sum + values.size) / (2 * values.size)
  end
end
