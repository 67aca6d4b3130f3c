#include "data/kept_prediction.h"

namespace millrace::data {

std::optional<PredictedMakespan> kept_makespan_prediction(const nlohmann::json& parameters) {
  if (!parameters.is_object()) return std::nullopt;
  const bool planned = parameters.contains("plan") && parameters.at("plan").is_object();
  if (!planned && !(parameters.contains("predicted") && parameters.at("predicted").is_object())) return std::nullopt;
  const nlohmann::json& kept = parameters.at(planned ? "plan" : "predicted");
  const auto micros = [&](const char* key) {
    const nlohmann::json value = kept.value(key, nlohmann::json());
    return value.is_number_integer() ? value.get<Micros>() : Micros{0};
  };
  const auto count = [&](const char* key) {
    const nlohmann::json value = kept.value(key, nlohmann::json());
    return value.is_number_integer() ? std::to_string(value.get<std::int64_t>()) : std::string("?");
  };
  PredictedMakespan prediction{{micros("makespan_p10_us"), micros("makespan_p50_us"), micros("makespan_p90_us")},
                               planned ? "comparison " + count("comparison") + " row " + count("row")
                                       : "its plan simulated at the start (" + count("replicas") + " replicas)"};
  if (prediction.band.p50 <= 0) return std::nullopt;
  return prediction;
}

std::optional<DurationNoise> kept_noise(const nlohmann::json& parameters, const std::string& input) {
  if (!parameters.is_object() || !parameters.contains("noise")) return std::nullopt;
  return DurationNoise::from_json(parameters.at("noise"), input);
}

nlohmann::json to_json(const std::optional<PredictedMakespan>& prediction) {
  if (!prediction) return nullptr;
  return {{"source", prediction->source},
          {"makespan_p10_us", prediction->band.p10},
          {"makespan_p50_us", prediction->band.p50},
          {"makespan_p90_us", prediction->band.p90}};
}

}  // namespace millrace::data
