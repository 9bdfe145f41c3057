// The particle attribute registry and ParticleSet's generic storage (particles/particle_attributes.hpp,
// particles/particle_set.hpp): the particle module's attributes come first in the files' order, a
// module's attribute stays aligned with its particles through remove, remove_flagged and
// sort_by_oct, and misuse (a late registration, a duplicate name, the wrong type) is refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::particles {
namespace {

double tag_of(std::int64_t id) { return 0.5 * static_cast<double>(id) - 3.0; }

TEST(ParticleAttributeStorage, CoreAttributesComeFirstInFileOrder) {
  const ParticleSet<2> set;
  const ParticleAttributeRegistry& registry = set.attributes();
  const std::vector<std::string> names = {"position", "velocity", "mass", "identity", "level", "family", "pending_kick", "pending_half_dt"};
  ASSERT_EQ(registry.size(), static_cast<int>(names.size()));
  for (int id = 0; id < registry.size(); ++id) {
    EXPECT_EQ(registry.info(id).name, names[static_cast<std::size_t>(id)]);
    EXPECT_EQ(registry.info(id).module, "particles");
  }
  EXPECT_EQ(registry.info(ParticleSet<2>::position_id).components, 2);
  EXPECT_EQ(component_name(registry.info(ParticleSet<2>::velocity_id), 1), "velocity_y");
  EXPECT_FALSE(registry.info(ParticleSet<2>::pending_kick_id).in_snapshots);
  EXPECT_TRUE(registry.info(ParticleSet<2>::pending_kick_id).in_restarts);
  EXPECT_FALSE(registry.info(ParticleSet<2>::level_id).in_restarts);
  int id = -1, component = -1;
  ASSERT_TRUE(registry.find_array("pending_kick_y", id, component));
  EXPECT_EQ(id, ParticleSet<2>::pending_kick_id);
  EXPECT_EQ(component, 1);
}

TEST(ParticleAttributeStorage, ModuleAttributeFollowsItsParticles) {
  ParticleSet<3> set;
  const int tag = set.add_attribute(particle_attribute("test_tag", AttributeType::float64, "code_mass", "test_module", 2));
  const int flag = set.add_attribute(particle_attribute("test_flag", AttributeType::int8, "", "test_module"));
  EXPECT_EQ(set.attributes().info(tag).comoving_exponent, 2);
  const std::vector<core::OctIndex> octs = {4, 1, 3, 1, 0, 2, 4, 0};
  for (std::size_t i = 0; i < octs.size(); ++i) {
    ParticleSet<3>::Particle p;
    p.id = static_cast<std::int64_t>(10 + i);
    const std::size_t index = set.add(p);
    EXPECT_EQ(set.values<double>(tag)[index], 0.0) << "a new particle's module attributes start at 0";
    set.values<double>(tag)[index] = tag_of(p.id);
    set.values<std::int8_t>("test_flag")[index] = static_cast<std::int8_t>(p.id % 3);
    set.oct()[index] = octs[i];
  }
  const auto aligned = [&] {
    long long bad = 0;
    for (std::size_t i = 0; i < set.size(); ++i) {
      const std::int64_t id = set.id()[i];
      bad += set.values<double>("test_tag")[i] != tag_of(id) || set.values<std::int8_t>(flag)[i] != id % 3;
    }
    return bad;
  };
  set.remove(1);
  EXPECT_EQ(aligned(), 0);
  std::vector<std::uint8_t> flags(set.size(), 0);
  flags[2] = 1;
  EXPECT_EQ(set.remove_flagged(flags), 1u);
  EXPECT_EQ(aligned(), 0);
  set.sort_by_oct(std::size_t{5});
  EXPECT_EQ(aligned(), 0);
  EXPECT_EQ(set.size(), 6u);
  for (std::size_t i = 1; i < set.size(); ++i) EXPECT_LE(set.oct()[i - 1], set.oct()[i]);
  ParticleSet<3> copy = set;
  copy.clear();
  EXPECT_TRUE(copy.values<double>(tag).empty());
}

TEST(ParticleAttributeStorage, MisuseIsRefused) {
  ParticleSet<3> set;
  EXPECT_THROW(set.add_attribute(particle_attribute("mass", AttributeType::float64, "", "test_module")), Error);
  ParticleAttributeInfo clash = particle_attribute("position", AttributeType::float64, "", "test_module");
  clash.name = "position_x";  // the name of a component array of position
  EXPECT_THROW(set.add_attribute(clash), Error);
  ParticleAttributeInfo two = particle_attribute("spin", AttributeType::float64, "", "test_module");
  two.components = 2;  // neither 1 nor D = 3
  EXPECT_THROW(set.add_attribute(two), Error);
  const int tag = set.add_attribute(particle_attribute("test_tag", AttributeType::float64, "", "test_module"));
  EXPECT_THROW(set.values<std::int64_t>(tag), Error);
  set.add(ParticleSet<3>::Particle{});
  EXPECT_THROW(set.add_attribute(particle_attribute("late", AttributeType::float64, "", "test_module")), Error);
  EXPECT_THROW(set.values<double>("no_such_attribute"), Error);
}

}  // namespace
}  // namespace kosmo::particles
