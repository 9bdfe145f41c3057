// The sinks' files (docs/outputs.md "/sinks" and "sink_NNNNN.csv"):
//  * Fortran's ES21.10 as gfortran prints it: 21 characters, right-justified, the E dropped before a
//    three-digit exponent;
//  * sink_NNNNN.csv: RAMSES' two comment lines and fixed-width columns, each value the sinks' own
//    printed as ES21.10, kosmo's extra float64 attribute as a column after `level`; read back, the
//    values are the printed ones and the extra column returns as an attribute of its name;
//  * the HDF5 group /sinks: every array (float64, int64, int8 attributes and restart fields) and the
//    identity counter come back bit for bit; a file without the group reads as "no sinks".
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <sstream>
#include <string>

#include "io/ramses_sink_file.hpp"
#include "io/snapshot_sink_group.hpp"

using namespace kosmo;

namespace {

// The value that ES21.10 prints: rounded to 11 significant digits.
double printed(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.10E", value);
  return std::strtod(text, nullptr);
}

io::SnapshotMeta three_sinks() {
  io::SnapshotMeta meta;
  meta.output_number = 7;
  meta.ndim = 3;
  meta.levelmin = 5;
  io::SnapshotSinks& sinks = meta.sinks;
  sinks.present = true;
  sinks.largest_identity = 9;
  io::SnapshotParticles& p = sinks.particles;
  p.id = {2, 5, 9};
  p.mass = {1.0 / 3.0, 2.5e-7, 4.0e120};
  for (std::size_t d = 0; d < 3; ++d) {
    p.position[d] = {0.1 + 0.2 * static_cast<double>(d), 0.7, 1.0 / 7.0};
    p.velocity[d] = {-1.0 / 9.0, 0.0, 3.25e-150 * static_cast<double>(d + 1)};
  }
  p.level = {5, 5, 5};
  p.family = {3, 3, 3};
  const auto attribute = [&](const std::string& name, io::ParticleValues values) {
    io::ParticleAttributeArray array;
    array.name = name;
    array.units = std::string("code_").append(name);
    array.comoving_exponent = 2;
    array.values = std::move(values);
    p.attributes.push_back(std::move(array));
  };
  attribute("birth_time", std::vector<double>{0.0, 0.125, 1.0 / 3.0});
  attribute("accreted_mass", std::vector<double>{1e-9, 2.0 / 3.0, 0.0});
  attribute("accretion_rate", std::vector<double>{3.0, -0.0, 1.5e-3});
  attribute("agn_energy", std::vector<double>{7.0e-5, 1.0 / 11.0, 2.0});
  p.attributes.back().units = "code_mass*code_velocity**2";
  attribute("serial", std::vector<std::int64_t>{-4, 1LL << 40, 0});
  attribute("flag", std::vector<std::int8_t>{1, -1, 0});
  p.restart_fields.push_back({"pending_kick_x", {0.5, 1.0 / 13.0, -2.0}});
  return meta;
}

TEST(SinkFiles, FortranEs21Point10) {
  EXPECT_EQ(io::fortran_es21_10(1.0), "     1.0000000000E+00");
  EXPECT_EQ(io::fortran_es21_10(-0.000123456789012345), "    -1.2345678901E-04");
  EXPECT_EQ(io::fortran_es21_10(0.0), "     0.0000000000E+00");
  EXPECT_EQ(io::fortran_es21_10(2.5e-120), "     2.5000000000-120");
  EXPECT_EQ(io::fortran_es21_10(-4.0e150), "    -4.0000000000+150");
}

TEST(SinkFiles, CsvHoldsEverySinkAsRamsesPrintsIt) {
  const io::SnapshotMeta meta = three_sinks();
  const std::string text = io::format_ramses_sink_file(meta);
  std::istringstream in(text);
  std::string names, units, line;
  std::getline(in, names);
  std::getline(in, units);
  EXPECT_EQ(names, " # id,msink,x,y,z,vx,vy,vz,lx,ly,lz,tform,acc_rate,del_mass,rho_gas,cs**2,etherm,vx_gas,vy_gas,vz_gas,mbh,dmfsink,level,agn_energy");
  EXPECT_EQ(units.rfind(" # 1,m,l,l,l,l t**-1,", 0), 0u) << units;
  // agn_energy's registry unit in RAMSES' notation (osyris evaluates the line with m, l, t).
  EXPECT_EQ(units.substr(units.rfind(",")), ",m l**2 t**-2");
  std::getline(in, line);
  // I10, 21 x (',' ES21.10), ',' I10, then the extra column.
  ASSERT_EQ(line.size(), 10 + 21 * 22 + 11 + 22u) << line;
  EXPECT_EQ(line.substr(0, 10), "         2");
  EXPECT_EQ(line.substr(10, 1), ",");
  EXPECT_EQ(line.substr(11, 21), io::fortran_es21_10(1.0 / 3.0));
  EXPECT_EQ(line.substr(10 + 21 * 22, 11), ",         5");

  const std::filesystem::path directory = std::filesystem::temp_directory_path() / ("kosmo_sink_csv_" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  io::write_ramses_sink_file(directory, meta);
  ASSERT_TRUE(std::filesystem::exists(directory / "sink_00007.csv"));
  const io::SnapshotSinks back = io::read_ramses_sink_file(directory, "output_00007", 7, 3);
  std::filesystem::remove_all(directory);
  ASSERT_TRUE(back.present);
  const io::SnapshotParticles& p = meta.sinks.particles;
  const io::SnapshotParticles& q = back.particles;
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(back.largest_identity, 9);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(q.id[s], p.id[s]);
    EXPECT_EQ(q.mass[s], printed(p.mass[s]));
    EXPECT_EQ(q.level[s], 5);
    EXPECT_EQ(q.family[s], 3);
    for (std::size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(q.position[d][s], printed(p.position[d][s]));
      EXPECT_EQ(q.velocity[d][s], printed(p.velocity[d][s]));
    }
  }
  // birth_time, accretion_rate, accreted_mass from tform, acc_rate, dmfsink; agn_energy from its own
  // column (not required at a restart: a column another code added is dropped, not refused).
  const std::vector<std::string> expected = {"birth_time", "accretion_rate", "accreted_mass", "agn_energy"};
  ASSERT_EQ(q.attributes.size(), expected.size());
  for (std::size_t a = 0; a < expected.size(); ++a) {
    EXPECT_EQ(q.attributes[a].name, expected[a]);
    EXPECT_EQ(q.attributes[a].in_restarts, a < 3);
    const auto& values = std::get<std::vector<double>>(q.attributes[a].values);
    for (const auto& original : p.attributes) {
      if (original.name != expected[a]) continue;
      const auto& written = std::get<std::vector<double>>(original.values);
      for (std::size_t s = 0; s < 3; ++s) EXPECT_EQ(values[s], printed(written[s])) << expected[a];
    }
  }
}

TEST(SinkFiles, MissingCsvMeansNoSinksAndABadLineIsNamed) {
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / ("kosmo_sink_bad_" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  EXPECT_FALSE(io::read_ramses_sink_file(directory, "output_00003", 3, 3).present);
  std::string text = io::format_ramses_sink_file(three_sinks());
  text[text.find("5.0000")] = 'x';  // a digit of sink 1's z (0.5) garbled: the file's line 3
  std::ofstream(directory / "sink_00003.csv") << text;
  try {
    io::read_ramses_sink_file(directory, "output_00003", 3, 3);
    ADD_FAILURE() << "a garbled value was accepted";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("output_00003/sink_00003.csv' line 3"), std::string::npos) << error.what();
  }
  std::filesystem::remove_all(directory);
}

TEST(SinkFiles, HdfGroupRoundTripsBitForBit) {
  const std::string path = (std::filesystem::temp_directory_path() / ("kosmo_sinks_" + std::to_string(getpid()) + ".h5")).string();
  hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  H5Fclose(file);
  EXPECT_FALSE(io::read_sink_group(path, 3).present);
  const io::SnapshotMeta meta = three_sinks();
  io::write_sink_group(path, meta.sinks, 3);
  const io::SnapshotSinks back = io::read_sink_group(path, 3);
  std::filesystem::remove(path);
  ASSERT_TRUE(back.present);
  EXPECT_EQ(back.largest_identity, 9);
  const io::SnapshotParticles& p = meta.sinks.particles;
  const io::SnapshotParticles& q = back.particles;
  EXPECT_EQ(q.id, p.id);
  EXPECT_EQ(q.mass, p.mass);
  EXPECT_EQ(q.level, p.level);
  EXPECT_EQ(q.family, p.family);
  EXPECT_EQ(q.position, p.position);
  EXPECT_EQ(q.velocity, p.velocity);
  ASSERT_EQ(q.attributes.size(), p.attributes.size());
  for (std::size_t a = 0; a < p.attributes.size(); ++a) {
    EXPECT_EQ(q.attributes[a].name, p.attributes[a].name);
    EXPECT_EQ(q.attributes[a].units, p.attributes[a].units);
    EXPECT_EQ(q.attributes[a].comoving_exponent, 2);
    EXPECT_TRUE(q.attributes[a].values == p.attributes[a].values) << p.attributes[a].name;
  }
  ASSERT_EQ(q.restart_fields.size(), 1u);
  EXPECT_EQ(q.restart_fields[0].name, "pending_kick_x");
  EXPECT_EQ(q.restart_fields[0].values, p.restart_fields[0].values);
}

}  // namespace
